import { type FileKind, likelyMapping, mapHeader, SPLIT_NAME } from '../rows/columns.js';
import { fieldLabel } from '../rows/fieldLabels.js';
import { splitName } from '../rows/splitName.js';
import { PAYMENT_DETAIL_FIELDS, TEMPLATE_COLUMNS } from '../rows/fields.js';
import { html, type SafeHtml } from '../core/html.js';
import { dateSection } from './dateChoice.js';
import type { Upload } from './Uploads.js';
import { sentHeader, type UploadTable } from './uploadTable.js';

/** One column of the upload, as the Map step shows it. */
interface ColumnView {
  index: number;
  column: string;
  /** The field the tool reads it as (with the person's mapping), if any. */
  field?: string;
  /** A pick list is shown: the tool does not understand the column by itself. */
  pick: boolean;
  /** The field preselected: the person's choice, else the tool's guess. */
  chosen?: string;
  /** The fields it could be, where its name could be two (`Vendor name`): the person says which, nothing preselected. */
  could?: string[];
  /** The words its values hold, where they name its field (`Type`: individual, business): read so, as the CLI reads it. */
  words?: string[];
  /**
   * A column of names that could be a person's whole name (`Vendor name`, `Full Name`): it may be split into the first
   * name and the last, which the page previews on its first values before anyone chooses it.
   */
  split?: Array<{ whole: string; first: string; last: string }>;
}

/**
 * The Map step's content: every column beside the field it feeds, a pick list for each the tool does not understand
 * by itself (the person's choice or the tool's guess preselected), and the required fields still without a column.
 * What it shows is what the check reads: a column its values name is read as that field there too, and a required
 * field is asked for only where no column holds it and none is preselected for it.
 */
export function mappingView(
  table: UploadTable,
  mapping: Readonly<Record<string, string>>,
): { kind: FileKind; columns: ColumnView[]; missing: string[]; unknown: string[] } {
  const kind = kindOf(table.header);
  const own = mapHeader(table.header, kind);
  const mapped = mapHeader(sentHeader(table.header, mapping), kind);
  const unknown = table.header.filter((column, i) => own.fields[i] === undefined && column.trim() !== '');
  const values = new Map(
    unknown.map((column) => {
      const at = table.header.indexOf(column);
      return [column, table.rows.slice(0, 50).map((row) => row.texts[at] ?? '')] as const;
    }),
  );
  const asked = new Map(own.asked.map((a) => [a.column, a.fields]));
  const likely = likelyMapping(own.missing, values).filter((g) => !asked.has(g.column));
  const byValues = new Map(likely.filter((g) => g.words).map((g) => [g.column, g]));
  const guesses = new Map(likely.map((g) => [g.column, g.field]));
  const columns = table.header.map((column, index): ColumnView => {
    const pick = own.fields[index] === undefined && column.trim() !== '';
    const read = byValues.get(column);
    const field = mapped.fields[index] ?? (mapping[column] === undefined ? read?.field : undefined);
    const chosen = mapping[column] ?? (pick ? guesses.get(column) : undefined);
    const could = asked.get(column);
    const splittable = could?.includes('lastName') === true || mapping[column] === SPLIT_NAME;
    return {
      ...{ index, column, pick },
      ...(field === undefined ? {} : { field }),
      ...(chosen ? { chosen } : {}),
      ...(could && mapping[column] === undefined ? { could } : {}),
      ...(read?.words && mapping[column] === undefined ? { words: read.words } : {}),
      ...(splittable ? { split: splitPreview(table, index) } : {}),
    };
  });
  const held = new Set(columns.flatMap((c) => [c.field, c.chosen]));
  return { kind, columns, missing: mapped.missing.filter((field) => !held.has(field)), unknown };
}

/** How the first names of a column would be split: the preview a person sees before choosing the split. */
function splitPreview(table: UploadTable, index: number): NonNullable<ColumnView['split']> {
  const wholes = table.rows.map((row) => (row.texts[index] ?? '').trim()).filter((whole) => whole !== '');
  return wholes.slice(0, 3).map((whole) => ({ whole, ...(splitName(whole) ?? { first: whole, last: '' }) }));
}

/** A bank-details file (no payer fields but every bank row's) is mapped to that file's fields; any other to a payer's. */
export function kindOf(header: readonly string[]): FileKind {
  const bank = mapHeader([...header], 'bank-details');
  return bank.missing.length === 0 && mapHeader([...header], 'payers').missing.length > 0 ? 'bank-details' : 'payers';
}

const FIELDS: Record<FileKind, readonly string[]> = {
  payers: TEMPLATE_COLUMNS,
  'bank-details': ['clientUserId', ...PAYMENT_DETAIL_FIELDS],
};

/**
 * The Map step: a form posting `col:<index>` = field for each pick list, `need:<field>` = column for a missing one, and
 * `dateFormat`, how the dates are written, where some are not written YYYY-MM-DD.
 */
export function mapSection(upload: Upload, table: UploadTable, csrf: string): SafeHtml {
  const view = mappingView(table, upload.mapping ?? {});
  const options = (chosen: string | undefined) =>
    FIELDS[view.kind].map((f) => {
      const { label, help } = fieldLabel(f);
      return html`<option value="${f}" title="${help}"${f === chosen ? html` selected` : ''}>${label}</option>`;
    });
  const split = (c: ColumnView) =>
    c.split
      ? html`<option value="${SPLIT_NAME}"${c.chosen === SPLIT_NAME ? html` selected` : ''}>First and last name, split</option>`
      : '';
  const preview = (c: ColumnView) =>
    c.split && c.split.length > 0
      ? html`<p class="hint">Split, it reads ${c.split.map(
          ({ whole, first, last }, i) =>
            html`${i > 0 ? '; ' : ''}“${whole}” as first name “${first}”, last name “${last || '(none: one word)'}”`,
        )}.</p>`
      : '';
  const said = (c: ColumnView) => {
    if (c.could)
      return html`<p class="hint">Could be ${c.could.map((f) => fieldLabel(f).label).join(' or ')}: choose which.</p>`;
    if (c.words)
      return html`<p class="hint">Read as ${fieldLabel(c.chosen ?? '').label} from its values (${c.words.join(', ')}).</p>`;
    return '';
  };
  const rows = view.columns.map(
    (c) => html`<tr>
  <th scope="row"${c.pick ? html` class="unknown-column"` : ''}>${c.pick ? html`<label for="map-${c.index}">${c.column}</label>` : c.column || html`<em>(no name)</em>`}</th>
  <td>${
    c.pick
      ? html`<select id="map-${c.index}" name="col:${c.index}"><option value="">(not used)</option>${split(c)}${options(c.could ? undefined : c.chosen)}</select>${said(c)}${preview(c)}`
      : c.field
        ? fieldLabel(c.field).label
        : html`<span class="muted">not used</span>`
  }</td></tr>`,
  );
  const missing = view.missing.map(
    (
      field,
    ) => html`<p class="need"><label for="need-${field}">Which column holds <strong>${fieldLabel(field).label}</strong>? It is required: ${fieldLabel(field).help}.</label>
<select id="need-${field}" name="need:${field}"><option value="">(none of them)</option>${view.unknown.map(
      (column) => html`<option value="${column}">${column}</option>`,
    )}</select></p>`,
  );
  const saved = [
    ...Object.entries(upload.mapping ?? {}).map(([column, field]) => `${column} → ${fieldLabel(field).label}`),
    ...(upload.dates?.by === 'saved' ? [`dates written ${upload.dates.format}`] : []),
  ];
  const note = upload.mappingSaved
    ? html`<p class="note" role="status" id="mapping-note">The mapping saved for files with these columns was applied: ${saved.join(', ')}.</p>`
    : '';
  return html`<section class="card" id="map" aria-labelledby="map-title">
<h2 id="map-title">Map the columns</h2>
${note}
<p>Each column of the file beside the field the tool reads it as. Choose the field for each column it does not know. What you save here is used for the next file with these columns, on this page and in the inbox.</p>
<form method="post" action="/uploads/${upload.id}/mapping">
<input type="hidden" name="_csrf" value="${csrf}">
<table class="mapping"><thead><tr><th scope="col">Column in the file</th><th scope="col">Field</th></tr></thead>
<tbody>${rows}</tbody></table>
${missing}
${dateSection(table, upload.mapping ?? {}, upload.dates)}
<details><summary>What each field means</summary><dl class="fields">${FIELDS[view.kind].map((f) => {
    const { label, help } = fieldLabel(f);
    return html`<dt>${label}</dt><dd>${help}</dd>`;
  })}</dl></details>
<button type="submit">Save the mapping and check again</button>
</form>
</section>`;
}

/** The mapping a Map form posted, as `--map` reads it: `{"Their column": "field"}`, only the columns given a field. */
export function postedMapping(table: UploadTable, body: Record<string, unknown>): Record<string, string> {
  const mapping: Record<string, string> = {};
  // A column of whole names may be split: its first name and its last (the person saw the split's preview).
  const fields = new Set(TEMPLATE_COLUMNS.concat(PAYMENT_DETAIL_FIELDS, ['clientUserId', SPLIT_NAME]));
  for (const [name, value] of Object.entries(body)) {
    const col = /^col:(\d+)$/.exec(name);
    const column = col ? table.header[Number(col[1])] : undefined;
    if (column !== undefined && typeof value === 'string' && fields.has(value)) mapping[column] = value;
  }
  // A required field given its column wins over that column's own pick list.
  for (const [name, value] of Object.entries(body)) {
    const field = name.startsWith('need:') ? name.slice(5) : undefined;
    if (field === undefined || typeof value !== 'string' || !fields.has(field)) continue;
    if (table.header.includes(value) && value.trim() !== '') mapping[value] = field;
  }
  return mapping;
}
