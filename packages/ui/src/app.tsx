import { useState } from 'react';

import { DefinitionEditor } from './pages/definition-editor';
import { DefinitionPage, DefinitionsPage } from './pages/definitions-page';
import { QueuesPage } from './pages/queues-page';
import { RunPage } from './pages/run-page';
import { RunsPage } from './pages/runs-page';
import { TaskDefsPage } from './pages/task-defs-page';
import { WorkbenchPage } from './pages/workbench-page';
import { Link, useRouter } from './router';

/** The shell: a header with the sections, and the page the address names. */

const SECTIONS = [
  ['/runs', 'Runs'],
  ['/definitions', 'Definitions'],
  ['/taskdefs', 'Task definitions'],
  ['/workbench', 'Start & test'],
  ['/queues', 'Queues & workers'],
] as const;

function decode(part: string | undefined): string {
  try {
    return decodeURIComponent(part ?? '');
  } catch {
    return part ?? '';
  }
}

function Page() {
  const { location } = useRouter();
  const parts = location.path.split('/').filter(Boolean);
  const [section, a, b] = parts;
  switch (section) {
    case undefined:
    case 'runs':
      return a ? <RunPage key={a} id={decode(a)} /> : <RunsPage />;
    case 'definitions':
      if (a === 'new') return <DefinitionEditor key="new" />;
      if (a && b === 'edit') return <DefinitionEditor key={`${a}/edit`} name={decode(a)} />;
      return a ? <DefinitionPage name={decode(a)} /> : <DefinitionsPage />;
    case 'taskdefs':
      return a ? <TaskDefsPage name={decode(a)} /> : <TaskDefsPage />;
    case 'workbench':
      return <WorkbenchPage />;
    case 'queues':
      return <QueuesPage />;
    default:
      return (
        <div className="page">
          <h1>Not found</h1>
          <p>
            Nothing lives at <span className="mono">{location.path}</span>. <Link to="/runs">Go to runs</Link>
            .
          </p>
        </div>
      );
  }
}

export function App() {
  const { location } = useRouter();
  const [menuOpen, setMenuOpen] = useState(false);
  const current = '/' + (location.path.split('/')[1] ?? '');
  return (
    <>
      <a href="#main" className="skip-link">
        Skip to content
      </a>
      <header className="topbar">
        <Link to="/runs" className="brand">
          <span className="brand-mark" aria-hidden="true" /> Baton
        </Link>
        <button
          type="button"
          className="menu-button"
          aria-expanded={menuOpen}
          aria-controls="nav"
          onClick={() => setMenuOpen(!menuOpen)}
        >
          Menu
        </button>
        <nav
          id="nav"
          className={menuOpen ? 'open' : ''}
          aria-label="Sections"
          onClick={() => setMenuOpen(false)}
        >
          {SECTIONS.map(([to, label]) => (
            <Link
              key={to}
              to={to}
              className={current === to || (to === '/runs' && current === '/') ? 'active' : ''}
            >
              {label}
            </Link>
          ))}
          <a href="/api/docs" className="external">
            API
          </a>
        </nav>
      </header>
      <main id="main">
        <Page />
      </main>
    </>
  );
}
