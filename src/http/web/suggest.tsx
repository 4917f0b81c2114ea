// Type-ahead from the catalogs (docs/web.md "Type-ahead"): a <datalist> the forms name in their inputs' `list`. The
// page renders it empty; htmx (when script runs) asks GET /catalog/suggestions as the person types and swaps the
// list in. Without script the inputs are plain text fields and the forms work as before.
import { renderToString } from 'preact-render-to-string';

export interface Suggestion {
  value: string;
  label?: string;
}

/** The lists a page may carry, by the id of their <datalist>. */
export const SUGGESTION_LISTS = ['asset-vendor', 'asset-product', 'watch'] as const;
export type SuggestionList = (typeof SUGGESTION_LISTS)[number];

export const listId = (list: SuggestionList) => `${list}-suggestions`;

export function SuggestionList({ list, items = [] }: { list: SuggestionList; items?: Suggestion[] }) {
  return (
    <datalist id={listId(list)}>
      {items.map((s) => (
        <option value={s.value} label={s.label} />
      ))}
    </datalist>
  );
}

/** The htmx attributes of an input fed by `list`; `include`: the other field the query needs (a CSS selector). */
export function suggestFrom(list: SuggestionList, include?: string) {
  return {
    list: listId(list),
    autocomplete: 'off',
    'hx-get': `/catalog/suggestions?list=${list}`,
    'hx-trigger': 'input changed delay:250ms',
    'hx-target': `#${listId(list)}`,
    'hx-swap': 'outerHTML',
    ...(include ? { 'hx-include': include } : {}),
  };
}

/** The fragment htmx swaps in. */
export const renderSuggestions = (list: SuggestionList, items: Suggestion[]) =>
  renderToString(<SuggestionList list={list} items={items} />);
