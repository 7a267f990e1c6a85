import { useState } from 'react';

import { CallerBadge, useAccess, type Group } from './auth';
import { DefinitionEditor } from './pages/definition-editor';
import { DefinitionPage, DefinitionsPage } from './pages/definitions-page';
import { EventsPage } from './pages/events-page';
import { InstructionsPage } from './pages/instructions-page';
import { QueuesPage } from './pages/queues-page';
import { RunPage } from './pages/run-page';
import { RunsPage } from './pages/runs-page';
import { SchedulesPage } from './pages/schedules-page';
import { TaskDefsPage } from './pages/task-defs-page';
import { TasksPage } from './pages/tasks-page';
import { WorkbenchPage } from './pages/workbench-page';
import { Link, useRouter } from './router';
import { TimeZoneSwitch } from './time/zone-switch';
import { useTimeZoneChoice } from './time/zone';

/** The shell: a header with the sections, and the page the address names. */

/** Each section with the caller group whose role reading it needs (hidden without it). */
const SECTIONS: ReadonlyArray<readonly [string, string, Group]> = [
  ['/runs', 'Runs', 'workflow'],
  ['/tasks', 'Tasks', 'task'],
  ['/definitions', 'Definitions', 'metadata'],
  ['/taskdefs', 'Task definitions', 'metadata'],
  ['/workbench', 'Start & test', 'workflow'],
  ['/queues', 'Queues & workers', 'task'],
  ['/schedules', 'Schedules', 'event'],
  ['/events', 'Event handlers', 'event'],
  ['/instructions', 'Instructions', 'metadata'],
];

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
    case 'tasks':
      return <TasksPage />;
    case 'taskdefs':
      return a ? <TaskDefsPage name={decode(a)} /> : <TaskDefsPage />;
    case 'workbench':
      return <WorkbenchPage />;
    case 'queues':
      return <QueuesPage />;
    case 'schedules':
      return <SchedulesPage key={a ?? ''} name={a === undefined ? undefined : decode(a)} />;
    case 'events':
      return <EventsPage key={a ?? ''} name={a === undefined ? undefined : decode(a)} />;
    case 'instructions':
      return <InstructionsPage key={a ?? ''} name={a === undefined ? undefined : decode(a)} />;
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
  const { can } = useAccess();
  // Every time on the page is formatted in the chosen zone: a change redraws the page.
  const zone = useTimeZoneChoice();
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
          {SECTIONS.filter(([, , group]) => can(group)).map(([to, label]) => (
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
        <TimeZoneSwitch />
        <CallerBadge />
      </header>
      <main id="main" data-zone={zone}>
        <Page />
      </main>
    </>
  );
}
