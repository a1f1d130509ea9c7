import type { z } from 'zod';
import { formatPath, type ConfigProblem } from './errors.js';

const MISSING = /^Invalid input: expected (\w+), received undefined$/;

function messageOf(issue: z.core.$ZodIssue): string {
  const missing = MISSING.exec(issue.message);
  return missing ? `required (expected ${missing[1]})` : issue.message;
}

/**
 * zod issues as config problems. Unknown keys become one problem per key at the key's own
 * path; a union whose every failing branch got past the type check (a matching object with
 * a bad field) reports that branch's issues instead of a bare "invalid input".
 */
export function problemsOf(issues: readonly z.core.$ZodIssue[], base: readonly PropertyKey[] = []): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  for (const issue of issues) {
    const path = [...base, ...issue.path];
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) problems.push({ path: formatPath([...path, key]), message: 'unknown key' });
    } else if (issue.code === 'invalid_union') {
      const deeper = issue.errors.filter((branch) => branch.length > 0 && branch.every((inner) => inner.path.length > 0));
      if (deeper.length === 1 && deeper[0]) problems.push(...problemsOf(deeper[0], path));
      else problems.push({ path: formatPath(path), message: messageOf(issue) });
    } else {
      problems.push({ path: formatPath(path), message: messageOf(issue) });
    }
  }
  return problems;
}
