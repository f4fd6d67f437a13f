import { Zip, ZipDeflate } from 'fflate';
import { RECORD_HEADER } from './rows.js';

/**
 * A streaming XLSX writer (ADR 0025): SpreadsheetML parts written straight into a deflated ZIP
 * (fflate) with inline strings, so rows are encoded and compressed as they come and never held;
 * the ZIP entries carry a fixed time, so the same rows give the same bytes.
 */
export class XlsxWriter {
  private readonly zip: Zip;
  private records: ZipDeflate | null = null;
  private readonly enc = new TextEncoder();
  private readonly finished: Promise<void>;

  constructor(
    sink: (chunk: Uint8Array) => void,
    private readonly mtime: Date,
    /** The records sheet's header row (rows.ts recordHeader). */
    private readonly header: readonly string[] = RECORD_HEADER,
  ) {
    let resolve!: () => void;
    let reject!: (err: Error) => void;
    this.finished = new Promise((res, rej) => {
      resolve = res;
      reject = rej;
    });
    this.zip = new Zip((err, chunk, final) => {
      if (err) return reject(err);
      sink(chunk);
      if (final) resolve();
    });
    this.file('[Content_Types].xml', CONTENT_TYPES);
    this.file('_rels/.rels', ROOT_RELS);
    this.file('xl/workbook.xml', WORKBOOK);
    this.file('xl/_rels/workbook.xml.rels', WORKBOOK_RELS);
    this.file('xl/styles.xml', STYLES);
  }

  /** A deflated entry with the fixed time (fflate would stamp the current one). */
  private entry(name: string): ZipDeflate {
    const f = new ZipDeflate(name, { level: 6 });
    f.mtime = this.mtime;
    this.zip.add(f);
    return f;
  }

  private file(name: string, text: string): void {
    const f = this.entry(name);
    f.push(this.enc.encode(text), true);
  }

  /** The summary sheet (first tab), whole: a few dozen rows. */
  summary(rows: (string | number | null)[][]): void {
    this.file('xl/worksheets/sheet1.xml', `${SHEET_HEAD}<sheetData>${rows.map(rowXml).join('')}</sheetData></worksheet>`);
  }

  /** Appends record rows to the records sheet (second tab), opening it with its header row. */
  addRecords(rows: (string | number | null)[][]): void {
    if (!this.records) {
      this.records = this.entry('xl/worksheets/sheet2.xml');
      this.records.push(
        this.enc.encode(
          `${SHEET_HEAD}<sheetViews><sheetView workbookViewId="0"><pane ySplit="1" topLeftCell="A2" activePane="bottomLeft" state="frozen"/></sheetView></sheetViews><sheetData>${rowXml([...this.header])}`,
        ),
      );
    }
    if (rows.length) this.records.push(this.enc.encode(rows.map(rowXml).join('')));
  }

  end(): Promise<void> {
    this.addRecords([]);
    this.records!.push(this.enc.encode('</sheetData></worksheet>'), true);
    this.zip.end();
    return this.finished;
  }
}

// XML 1.0 cannot carry most control characters at all; they are dropped.
// eslint-disable-next-line no-control-regex
const INVALID_XML = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g;

const escapeXml = (s: string) => s.replace(INVALID_XML, '').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

function cellXml(v: string | number | null): string {
  if (v === null) return '<c/>';
  if (typeof v === 'number') return Number.isFinite(v) ? `<c><v>${v}</v></c>` : '<c/>';
  return `<c t="inlineStr"><is><t xml:space="preserve">${escapeXml(v)}</t></is></c>`;
}

const rowXml = (cells: (string | number | null)[]) => `<row>${cells.map(cellXml).join('')}</row>`;

const SHEET_HEAD = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">';

const CONTENT_TYPES = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/><Override PartName="/xl/worksheets/sheet2.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/><Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/></Types>`;

const ROOT_RELS = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>`;

const WORKBOOK = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Summary" sheetId="1" r:id="rId1"/><sheet name="Records" sheetId="2" r:id="rId2"/></sheets></workbook>`;

const WORKBOOK_RELS = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet2.xml"/><Relationship Id="rId3" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/></Relationships>`;

const STYLES = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><fonts count="1"><font><sz val="11"/><name val="Calibri"/></font></fonts><fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills><borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders><cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs><cellXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/></cellXfs></styleSheet>`;
