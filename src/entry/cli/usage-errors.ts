import { CommanderError, type Command } from 'commander';
import { EXIT } from './failure/exit-codes.js';

/** What commander throws for output a person asked for (`--help`, `--version`): the command succeeded. */
const ASKED_FOR = new Set(['commander.helpDisplayed', 'commander.version']);

function fixLine(command: Command): string {
  const names: string[] = [];
  for (let at: Command | null = command; at !== null; at = at.parent) names.unshift(at.name());
  return `fix: see ${names.join(' ')} --help`;
}

/**
 * Makes a command line mistake of `program` or any of its commands (an unknown option or command,
 * a missing or invalid argument) end with {@link EXIT.config}, as docs/commands.md "Exit codes and messages" says,
 * instead of commander's exit 1; commander's `error: …` line is followed by a `fix:` line naming
 * that command's help. Call once every command is registered: each gets its own fix line.
 * Returns what to do with anything `parseAsync` throws: the exit code for commander's errors
 * (said already, or said here when an action threw one), undefined for any other error.
 */
export function exitTwoOnUsageErrors(program: Command, writeErr: (text: string) => void): (error: unknown) => number | undefined {
  let said = false;
  let running: Command = program;
  program.hook('preAction', (_program, action) => void (running = action));
  const visit = (command: Command): void => {
    command
      .exitOverride()
      .showHelpAfterError(fixLine(command))
      .configureOutput({
        outputError: (text, write) => {
          said = true;
          write(text);
        },
      });
    command.commands.forEach(visit);
  };
  visit(program);
  return (error) => {
    if (!(error instanceof CommanderError)) return undefined;
    if (ASKED_FOR.has(error.code)) return EXIT.ok;
    // An action's own InvalidArgumentError (a flag that needs another) is a usage error commander did not print.
    if (!said) writeErr(`${error.message.startsWith('error:') ? error.message : `error: ${error.message}`}\n${fixLine(running)}\n`);
    return EXIT.config;
  };
}
