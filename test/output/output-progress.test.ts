import { describe, expect, it } from 'vitest';
import { Progress } from '../../src/output/Progress.js';
import { memoryStream } from '../helpers/runHarness.js';

describe('progress bar', () => {
  it('counts waiting rows apart from ok and failed ones', () => {
    const err = memoryStream();
    const progress = new Progress(err.stream, 5, true);
    for (const outcome of ['ok', 'waiting', 'waiting', 'failed', 'invalid'] as const) progress.add(outcome);
    progress.stop();
    const line = err.text().split('\r').at(-1)!;
    expect(line).toMatch(
      /^\[#{24}\] 5\/5 rows {2}ok 1 {2}waiting 2 {2}invalid 1 {2}failed 1 {2}[\d.]+ rows\/s {2}ETA /,
    );
    expect(line).not.toContain('skipped');
  });

  it('a total read as it goes (a file read once, by its bytes) is asked at each draw, never below the rows done', () => {
    const err = memoryStream();
    let expected = 8;
    const progress = new Progress(err.stream, () => expected, true);
    for (let i = 0; i < 4; i++) progress.add('ok');
    expected = 3;
    progress.stop();
    expect(err.text().split('\r').at(-1)!).toMatch(/^\[#{24}\] 4\/4 rows {2}ok 4 /);
  });

  it('draws nothing when it is off', () => {
    const err = memoryStream();
    const progress = new Progress(err.stream, 1, false);
    progress.add('waiting');
    progress.stop();
    expect(err.text()).toBe('');
  });
});
