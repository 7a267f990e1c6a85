/** Page sizes every searched list offers; the first is the default. */
export const PAGE_SIZES = [25, 50, 100, 250];

/** The size a URL asks for, or the default when it is not one the lists offer. */
export function pageSize(asked: number): number {
  return PAGE_SIZES.includes(asked) ? asked : 25;
}

/** The sort and page-size pickers of a searched list (runs, tasks), each a URL parameter. */
export function SortAndSize({
  idPrefix,
  sorts,
  sort,
  size,
  onChange,
}: {
  /** Prefix of the two controls' ids (`<prefix>-sort`, `<prefix>-size`), unique on the page. */
  idPrefix: string;
  sorts: ReadonlyArray<readonly [string, string]>;
  sort: string | undefined;
  size: number;
  onChange: (params: { sort: string } | { size: string }) => void;
}) {
  return (
    <div className="sorting">
      <label htmlFor={`${idPrefix}-sort`}>Sort</label>
      <select id={`${idPrefix}-sort`} value={sort} onChange={(e) => onChange({ sort: e.target.value })}>
        {sorts.map(([v, label]) => (
          <option key={v} value={v}>
            {label}
          </option>
        ))}
      </select>
      <label htmlFor={`${idPrefix}-size`}>Per page</label>
      <select id={`${idPrefix}-size`} value={size} onChange={(e) => onChange({ size: e.target.value })}>
        {PAGE_SIZES.map((n) => (
          <option key={n} value={n}>
            {n}
          </option>
        ))}
      </select>
    </div>
  );
}
