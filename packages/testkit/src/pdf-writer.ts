/**
 * A minimal one-page PDF with lines of text, for tests that need a real PDF without a fixture
 * file: Helvetica (one of the 14 standard fonts, so nothing is embedded), one content stream,
 * an exact cross-reference table. PDF.js reads its text as a person would see it.
 */

/** A string in a PDF literal: backslash and parentheses escaped. */
function pdfString(text: string): string {
  return `(${text.replace(/[\\()]/g, (char) => `\\${char}`)})`;
}

/** The bytes of a one-page PDF showing `lines` (Latin-1 text), top to bottom. */
export function writeTextPdf(lines: readonly string[]): Buffer {
  const shown = lines.map((line) => `${pdfString(line)} Tj T*`).join(" ");
  const stream = `BT /F1 14 Tf 18 TL 72 720 Td ${shown} ET`;
  const objects = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>",
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
    `<< /Length ${Buffer.byteLength(stream, "latin1")} >>\nstream\n${stream}\nendstream`,
  ];
  let body = "%PDF-1.4\n";
  const offsets: number[] = [];
  objects.forEach((object, index) => {
    offsets.push(Buffer.byteLength(body, "latin1"));
    body += `${index + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xref = Buffer.byteLength(body, "latin1");
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) body += `${String(offset).padStart(10, "0")} 00000 n \n`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(body, "latin1");
}
