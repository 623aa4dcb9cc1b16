import { describe, expect, it } from 'vitest';
import { jsonLineProblem, notAnObject, readablePairs, withNote, withoutNote } from '../../src/input/jsonLineProblem.js';

// Each line as a person writes it by hand or a script writes it wrongly, and what the row's error says about it: the
// fault in words and the key it is in or after, never a value of the line.
const SPREAD = 'the line is cut short, or JSONL needs each object whole on one line';

describe('what is wrong with a line that is not JSON, in words', () => {
  it.each([
    [
      'a trailing comma',
      '{"clientUserId":"p-1","postcode":"02139",}',
      'a trailing comma after the value of "postcode", before the closing }: remove that comma',
    ],
    [
      'a trailing comma in a list',
      '{"clientUserId":"p-1","paymentDetails":[{"iban":"x"},]}',
      'a trailing comma after the value of "iban", before the closing ]: remove that comma',
    ],
    [
      'a closing quote missing mid-line',
      '{"clientUserId":"p-1","city":"Boston,"postcode":"02139"}',
      'a quote missing or one too many after the value of "city"',
    ],
    [
      'a closing quote missing at the end',
      '{"clientUserId":"p-1","city":"Boston}',
      'a text with no closing quote in the value of "city": the line ends inside it',
    ],
    [
      'an opening quote missing',
      '{"clientUserId":"p-1","city":Boston"}',
      'a text without double quotes in the value of "city": write it in them ("...")',
    ],
    [
      'a key without quotes',
      '{clientUserId:"p-1"}',
      'a key without double quotes at the start of the line: write every key in them ("key": ...)',
    ],
    [
      'single quotes',
      "{'clientUserId':'p-1'}",
      `single quotes (') at the start of the line: JSON takes double quotes (") only`,
    ],
    [
      'curly quotes',
      '{"clientUserId":\u201cp-1\u201d}',
      'curly quotes (\u201c \u201d) in the value of "clientUserId", as a word processor writes them: JSON takes straight double quotes (") only',
    ],
    ['a comma missing', '{"clientUserId":"p-1" "city":"Boston"}', 'a comma missing after the value of "clientUserId"'],
    [
      'a number with a leading zero',
      '{"clientUserId":"p-1","postcode":02139}',
      'a number starting with 0 in the value of "postcode", which JSON does not allow: write it as a string with all its digits ("0...")',
    ],
    [
      'Python words',
      '{"clientUserId":"p-1","agreementCompleted":True}',
      'True in the value of "agreementCompleted", which JSON does not know: write true, false or null',
    ],
    [
      'a Windows path',
      '{"clientUserId":"p-1","addressLine1":"C:\\Users"}',
      'a backslash that starts no JSON escape in the value of "addressLine1": write a backslash itself as \\\\',
    ],
    [
      'a tab typed into a text',
      '{"clientUserId":"p-1","city":"Bos\tton"}',
      'a tab or another control character inside a text in the value of "city": write a tab as \\t, or remove it',
    ],
    [
      'a line cut short',
      '{"clientUserId":"p-1",',
      `the end of the line before the closing }, after the value of "clientUserId": ${SPREAD}`,
    ],
    ['an object spread over lines: its first', '{', `the end of the line before the closing }: ${SPREAD}`],
    [
      'an object spread over lines: a middle one',
      '  "clientUserId": "p-1",',
      'a key and its value without { }: it looks like one line of an object written over several lines: JSONL needs each object whole on one line',
    ],
    [
      'an object spread over lines: its last',
      '}',
      'a } at its start: it looks like the end of an object written over several lines: JSONL needs each object whole on one line',
    ],
    [
      'a JSON array cut into lines',
      '{"clientUserId":"p-1"},',
      'a comma after the closing } of its object: remove it (lines of JSONL are not separated by commas)',
    ],
    ['one } too many', '{"clientUserId":"p-1"}}', 'one } too many at its end: remove it'],
    [
      'a CSV line',
      'clientUserId,email',
      'no { at its start: each line must be one object like {"clientUserId": "...", ...}',
    ],
  ])('%s', (_, line, message) => {
    expect(() => JSON.parse(line)).toThrow();
    expect(jsonLineProblem(line)).toBe(message);
  });

  it('never quotes a value, only keys', () => {
    expect(jsonLineProblem('{"ssn":"123-45-6789","city":"Boston,"x":1}')).not.toContain('Boston');
    expect(jsonLineProblem('{"ssn":"123-45-6789","city":Boston}')).not.toContain('Boston');
  });

  it('says what a line that is JSON but not an object is', () => {
    expect(notAnObject([{ clientUserId: 'p-1' }])).toBe(
      'is a list ([...]), not one object: write each object ({"clientUserId": "...", ...}) on a line of its own, without [ ]',
    );
    expect(notAnObject('p-1')).toBe(
      'is a JSON text, not an object: each line must be one object like {"clientUserId": "...", ...}',
    );
    expect(notAnObject(null)).toBe(
      'is null, not an object: each line must be one object like {"clientUserId": "...", ...}',
    );
  });
});

describe('what can still be read of such a line, and the note a failed file puts on it', () => {
  it('reads the "key": "text" pairs that end as a value ends, also after the fault', () => {
    expect(readablePairs('{"clientUserId":"p-1","city":"Boston,"postcode":"02139", "note":"a \\"b\\""}')).toEqual([
      { column: 'clientUserId', value: 'p-1' },
      { column: 'postcode', value: '02139' },
      { column: 'note', value: 'a "b"' },
    ]);
    // The quote the fault shifted: "p-1, " is not taken for the id.
    expect(readablePairs('{"clientUserId":"p-1, "city":"Boston"}')).toEqual([{ column: 'city', value: 'Boston' }]);
  });

  it('puts the note inside a line that starts with {, before one that does not, and takes it off again', () => {
    const broken = '{"clientUserId":"p-1",}';
    const noted = withNote(broken, '(line): is not valid JSON: ...', 'from=payers.jsonl:2');
    expect(noted).toBe(
      '{"error":"(line): is not valid JSON: ...","completedSteps":"from=payers.jsonl:2","clientUserId":"p-1",}',
    );
    expect(withoutNote(noted)).toEqual({ text: broken, completedSteps: 'from=payers.jsonl:2' });
    // Fixed, it is an object like any failed line's.
    expect(JSON.parse(noted.replace(',}', '}'))).toEqual({
      error: '(line): is not valid JSON: ...',
      completedSteps: 'from=payers.jsonl:2',
      clientUserId: 'p-1',
    });

    const list = '[{"clientUserId":"p-1"}]';
    const before = withNote(list, 'e', '');
    expect(before).toBe('{"error":"e","completedSteps":""} [{"clientUserId":"p-1"}]');
    expect(withoutNote(before)).toEqual({ text: list, completedSteps: '' });
    expect(withoutNote(broken)).toBeUndefined();
  });
});
