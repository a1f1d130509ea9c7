/** A strict reader of the Prometheus text exposition format (0.0.4), enough to prove `/metrics` parses. */
export interface Sample {
  readonly name: string;
  readonly labels: Record<string, string>;
  readonly value: number;
}
export interface Family {
  readonly type: string;
  readonly samples: Sample[];
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: -?\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(?:,|$)/gy;
const SUFFIXES = ['_bucket', '_sum', '_count', ''];

function parseValue(text: string, line: string): number {
  // Prometheus reads values with Go's ParseFloat, which matches NaN and Inf ignoring case (prom-client writes `Nan`).
  const special = text.toLowerCase();
  if (special === '+inf' || special === 'inf') return Infinity;
  if (special === '-inf') return -Infinity;
  if (special === 'nan') return NaN;
  const value = Number(text);
  if (Number.isNaN(value)) throw new Error(`bad sample value in: ${line}`);
  return value;
}

function parseLabels(text: string | undefined, line: string): Record<string, string> {
  const labels: Record<string, string> = {};
  if (text === undefined || text === '') return labels;
  LABEL.lastIndex = 0;
  let consumed = 0;
  for (let m = LABEL.exec(text); m !== null; m = LABEL.exec(text)) {
    labels[m[1] as string] = (m[2] as string).replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    consumed = LABEL.lastIndex;
  }
  if (consumed !== text.length) throw new Error(`bad labels in: ${line}`);
  return labels;
}

/** Every family by name; throws on any line that is not valid exposition format or a sample without a TYPE. */
export function parsePrometheusText(text: string): Map<string, Family> {
  const families = new Map<string, Family>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('# HELP ')) continue;
    const type = /^# TYPE (\S+) (counter|gauge|histogram|summary|untyped)$/.exec(line);
    if (type) {
      families.set(type[1] as string, { type: type[2] as string, samples: [] });
      continue;
    }
    const match = SAMPLE.exec(line);
    if (!match) throw new Error(`not a Prometheus text line: ${line}`);
    const name = match[1] as string;
    const family = SUFFIXES.map((s) => (name.endsWith(s) ? families.get(name.slice(0, name.length - s.length)) : undefined)).find((f) => f !== undefined);
    if (!family) throw new Error(`sample without a TYPE line: ${line}`);
    family.samples.push({ name, labels: parseLabels(match[2], line), value: parseValue(match[3] as string, line) });
  }
  return families;
}
