/** A report as titled tables of text cells: what the table, markdown and html renderers lay out. */
export interface Column {
  header: string;
  align: "left" | "right";
}

export interface Section {
  id: string;
  title: string;
  notes: string[];
  columns: Column[];
  rows: string[][];
}

export const L = (header: string): Column => ({ header, align: "left" });
export const R = (header: string): Column => ({ header, align: "right" });
