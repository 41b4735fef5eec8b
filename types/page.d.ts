// What the page adds to the DOM's own types: every started figure carries its scaffold.
interface HTMLElement {
  figure?: { state: any; set(partial: any): void; redraw(): void };
}
