// The browser globals that tests read inside page.evaluate, as far as they read them. The project is type-checked
// without the DOM's types (they would retype Node's timers for the whole program), so a test names the page's
// globals with this type: `globalThis as unknown as PageGlobals` (a type only: the function runs in the browser).

export interface PageElement {
  tagName: string;
  id: string;
  className: unknown;
  innerText: string;
  textContent: string | null;
  scrollWidth: number;
  clientWidth: number;
  classList: { contains(name: string): boolean };
  closest(selector: string): PageElement | null;
  querySelector(selector: string): PageElement | null;
  querySelectorAll(selector: string): Iterable<PageElement>;
  getAttribute(name: string): string | null;
  getBoundingClientRect(): { left: number; right: number; width: number; height: number };
}

export interface PageGlobals {
  document: { documentElement: PageElement; body: PageElement; querySelector(selector: string): PageElement | null };
  getComputedStyle: (element: unknown) => { overflowX: string; backgroundColor: string };
  location: { hash: string };
  sessionStorage: { length: number };
  localStorage: { length: number };
}
