/**
 * A usage error as one line: the command, what is wrong (the option and what it expects, as the parser
 * or the option's own check says it), and where the full usage is. Never the whole usage text.
 */
export function usageErrorLine(command: string, parserText: string): string {
  const what = parserText
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "")
    .join(" ")
    .replace(/^error: /, "")
    // "option '--seed <n>' argument 'x' is invalid. --seed must be …": the option's own sentence says it all.
    .replace(/^option '(-[^' ]+)[^']*' argument '.*' is invalid\. (\1 .*)$/s, "$2");
  return `${command}: ${what} (see ${command} --help)\n`;
}
