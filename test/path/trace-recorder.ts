import { ENTER, RESUME } from './trace-plugin.js';

/**
 * The files an instrumented process enters, in order, while recording is on, and the places the
 * trace is cut into pages (an index into `files`: the page before ends there).
 */
export class PathRecorder {
  readonly files: string[] = [];
  readonly cuts: number[] = [];
  #on = false;

  enter(file: string): void {
    if (this.#on) this.files.push(file);
  }

  /** Ends the page being recorded here. */
  cut(): void {
    if (this.#on) this.cuts.push(this.files.length);
  }

  /** Records what `work` enters, from a clean trace. */
  async record<T>(work: () => Promise<T>): Promise<T> {
    this.files.length = 0;
    this.cuts.length = 0;
    this.#on = true;
    try {
      return await work();
    } finally {
      this.#on = false;
    }
  }
}

const KEY = '__callsyncPathRecorder';

/**
 * The one recorder of this test process, which the instrumented code reports to through two
 * globals; kept on the global too, so the setup file and the test share it whatever modules each loaded.
 */
export const recorder: PathRecorder = ((globalThis as { [KEY]?: PathRecorder })[KEY] ??= new PathRecorder());

/** Sets the globals the instrumented sources call (the `path` project's setup file does, before any of them loads). */
export function installRecorder(): void {
  Object.assign(globalThis, {
    [ENTER]: (file: string): void => recorder.enter(file),
    [RESUME]: <T>(file: string, value: T): T => {
      recorder.enter(file);
      return value;
    },
  });
}
