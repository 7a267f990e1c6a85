import { fail } from '../errors.js';

/**
 * Conductor's `sort` query parameter (`field:ASC|DESC`, repeated or joined with `|`) for a search
 * over `fields`: field names match case-insensitively; anything else is a 400 naming the item.
 */
export function parseSortParam<F extends string>(
  raw: string | string[] | undefined,
  fields: readonly F[],
): Array<{ field: F; order: 'ASC' | 'DESC' }> {
  const sort: Array<{ field: F; order: 'ASC' | 'DESC' }> = [];
  const items = (Array.isArray(raw) ? raw : raw ? [raw] : []).flatMap((s) => s.split('|')).filter(Boolean);
  for (const item of items) {
    const [field = '', order = 'ASC'] = item.split(':');
    const known = fields.find((f) => f.toLowerCase() === field.toLowerCase());
    const dir = order.toUpperCase();
    if (known === undefined || (dir !== 'ASC' && dir !== 'DESC')) {
      throw fail('SEARCH_SORT_INVALID', { fields: fields.join(', ') }, [
        { path: 'querystring.sort', message: 'unknown sort', invalidValue: item },
      ]);
    }
    sort.push({ field: known, order: dir });
  }
  return sort;
}
