/** The A4 page of the report documents and the band its header and footer take. */
export const PAGE = { width: 595.28, height: 841.89 };
export const MARGIN = 42;
export const CONTENT_WIDTH = PAGE.width - 2 * MARGIN;
/** Where the content starts below the header (logo, tenant, title) and ends above the footer. */
export const CONTENT_TOP = 74;
export const CONTENT_BOTTOM = PAGE.height - 52;

/** Status colours shared by the location plan and its legend. */
export const STATUS_COLOURS: Record<string, string> = {
  normal: '#1a8a3a',
  warning: '#d99a00',
  alarm: '#c62828',
  action: '#6a1b9a',
};
export const NO_DATA_COLOUR = '#8a8a8a';
