/**
 * Conductor runs JSON_JQ_TRANSFORM filters on jackson-jq, Baton on real jq. jackson-jq takes an
 * object value that is an operation (`{a: .x // "y"}`, `{a: .n + 1}`, `{a: if .x then 1 else 2
 * end}`); jq's grammar takes only a term or a pipe there, so the value needs parentheses
 * (`{a: (.x // "y")}`), which both accept. `jacksonJqRewrite` makes that rewrite, so a refused
 * filter's registration error can say what to write instead.
 */

/** Binary operators and keywords jq refuses at the top of an object value. */
const OPERATOR =
  /\/\/|==|!=|<=|>=|[<>+*%]|(?<![./])\/(?!\/)|(?<![\s(]|^)\s*-(?!\s*$)|(?<![\w.$])(and|or|as)(?!\w)/;
const LEADING_KEYWORD = /^(if|try|reduce|foreach|label|def)(?!\w)/;

/** The filter with every such object value in parentheses; undefined when nothing changes. */
export function jacksonJqRewrite(filter: string): string | undefined {
  const inserts: { at: number; text: string }[] = [];
  // Open brackets; an object's frame remembers where the value after its `:` starts.
  const frames: { open: string; valueStart?: number; masked: string }[] = [];
  const closeValue = (end: number): void => {
    const frame = frames[frames.length - 1];
    if (frame?.open !== '{' || frame.valueStart === undefined) return;
    const raw = filter.slice(frame.valueStart, end);
    const lead = raw.length - raw.trimStart().length;
    const trail = raw.length - raw.trimEnd().length;
    const masked = frame.masked.trim();
    if (masked !== '' && (OPERATOR.test(masked) || LEADING_KEYWORD.test(masked))) {
      inserts.push({ at: frame.valueStart + lead, text: '(' });
      inserts.push({ at: end - trail, text: ')' });
    }
    frame.valueStart = undefined;
    frame.masked = '';
  };
  /** Adds what the innermost object's value shows at its own level (nested parts are blanked). */
  const see = (text: string): void => {
    const frame = frames[frames.length - 1];
    if (frame?.open === '{' && frame.valueStart !== undefined) frame.masked += text;
  };
  let i = 0;
  while (i < filter.length) {
    const c = filter[i] ?? '';
    if (c === '"') {
      // A string literal (its interpolations included) counts as one term.
      let j = i + 1;
      let depth = 0;
      while (j < filter.length) {
        const d = filter[j];
        if (d === '\\' && filter[j + 1] === '(') {
          depth++;
          j += 2;
          continue;
        }
        if (d === '\\') j++;
        else if (d === '(' && depth > 0) depth++;
        else if (d === ')' && depth > 0) depth--;
        else if (d === '"' && depth === 0) break;
        j++;
      }
      see('""');
      i = j + 1;
      continue;
    }
    if (c === '#') {
      while (i < filter.length && filter[i] !== '\n') i++;
      continue;
    }
    if (c === '{' || c === '(' || c === '[') {
      see(' ');
      frames.push({ open: c, masked: '' });
    } else if (c === '}' || c === ')' || c === ']') {
      if (c === '}') closeValue(i);
      frames.pop();
      see(' ');
    } else if (c === ':' && frames[frames.length - 1]?.open === '{') {
      const frame = frames[frames.length - 1];
      if (frame && frame.valueStart === undefined) frame.valueStart = i + 1;
      else see(c);
    } else if (c === ',' && frames[frames.length - 1]?.open === '{') {
      closeValue(i);
    } else {
      see(c);
    }
    i++;
  }
  if (inserts.length === 0) return undefined;
  let out = filter;
  for (const { at, text } of inserts.sort((a, b) => b.at - a.at || (a.text === ')' ? -1 : 1)))
    out = out.slice(0, at) + text + out.slice(at);
  return out;
}
