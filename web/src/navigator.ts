// How modules below app.tsx open a view: app.tsx's navigate, registered here at start, so that
// they need not import app.tsx (which imports them).
import type { View } from './narrow';

let navigateTo: ((v: View) => void) | null = null;
export function setNavigator(f: (v: View) => void): void {
  navigateTo = f;
}
/** Opens a view as the app's own links do (for modules that app.tsx itself imports). */
export function goTo(v: View): void {
  navigateTo?.(v);
}
