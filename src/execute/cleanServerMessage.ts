// The server's message goes into results.csv and the log. Servers sometimes echo what they were sent
// ("ssn 123-45-6789 is invalid"), so every personal value of the request is cut out of it, and so is the key.

/** Values that are codes rather than personal data; echoing them back helps the reader and leaks nothing. */
const NOT_PERSONAL = new Set([
  'clientUserId',
  'beneficiaryType',
  'rails',
  'accountType',
  'currency',
  'country',
  'nationality',
  'agreementCompleted',
]);
const MAX_LENGTH = 300;

export function cleanServerMessage(message: string | undefined, body: unknown, apiKey: string): string | undefined {
  if (message === undefined) return undefined;
  const secrets = [apiKey, ...personalValues(body)].filter((v) => v.length >= 3);
  // Longest first, so a value that contains a shorter one is removed whole.
  secrets.sort((a, b) => b.length - a.length);
  let text = message;
  for (const secret of secrets) text = text.split(secret).join('[redacted]');
  // An e-mail address is personal whichever request it came from.
  text = text.replace(/[^\s@"'<>(),;:]+@[^\s@"'<>(),;:]+\.[a-z]{2,}/gi, '[redacted]');
  // One line, no control characters, bounded.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this removes
  text = text.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  if (text.length > MAX_LENGTH) text = `${text.slice(0, MAX_LENGTH - 1)}…`;
  return text === '' ? undefined : text;
}

function personalValues(body: unknown): string[] {
  if (body === null || typeof body !== 'object') return [];
  const out: string[] = [];
  for (const [key, value] of Object.entries(body)) {
    if (NOT_PERSONAL.has(key)) continue;
    if (typeof value === 'string') out.push(value);
    else if (typeof value === 'object') out.push(...personalValues(value));
  }
  return out;
}
