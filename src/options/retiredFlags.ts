// Flags an earlier version took and this one does not, each with what replaces it. yargs would call one an unknown
// argument; a script written for the earlier version deserves to learn why it stopped and what to write instead.
const RETIRED: Readonly<Record<string, string>> = {
  'complete-agreement':
    '--complete-agreement is gone: a blank agreementCompleted cell no longer completes the agreement, since the ' +
    "agreement is the payer's to sign. Mark the rows whose signature the team collected (agreementCompleted: " +
    'true, yes or the date), give --agreement-signed-elsewhere when every payer of the file signed outside the ' +
    'tool, or leave it to the payers, who sign on their page (serve)',
  'no-complete-agreement':
    '--no-complete-agreement is gone: leaving the agreement to the payer is what every run does now; drop the flag',
};

/** The sentence for the first retired flag in `argv`, if any: `--flag`, `--flag=value`. */
export function retiredFlag(argv: readonly string[]): string | undefined {
  for (const arg of argv) {
    if (arg === '--') return undefined;
    const [, name, value] = /^--([^=]+)(?:=(.*))?$/.exec(arg) ?? [];
    if (name === undefined || RETIRED[name] === undefined) continue;
    // `--complete-agreement=false` is the same as `--no-complete-agreement`.
    const off = value !== undefined && /^(false|no|0)$/i.test(value);
    return off && name === 'complete-agreement' ? RETIRED['no-complete-agreement'] : RETIRED[name];
  }
  return undefined;
}
