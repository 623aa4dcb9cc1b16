import { defineConfig } from 'vitest/config';

/** The tests that drive chromium, or have openpyxl and LibreOffice write workbooks. */
const BROWSER = [
  'test/e2e/*-browser.test.ts',
  'test/e2e/web-journey.test.ts',
  'test/e2e/web-sent.test.ts',
  'test/e2e/xlsx-producers.test.ts',
];

export default defineConfig({
  test: {
    // Most tests wait on a loopback server, a backoff, a child process or a browser, not on the CPU: four files at a
    // time fill two cores (measured here: 127 to 157 s, against 158 s with three; five were slower again).
    maxWorkers: 4,
    testTimeout: 60_000,
    hookTimeout: 30_000,
    // expect.poll waits for what a page or a server does next: a loaded machine's seconds, not vitest's default one.
    expect: { poll: { timeout: 15_000 } },
    // After each test file: what it left in the system temp folder is removed.
    setupFiles: ['test/helpers/cleanUp.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: ['test/e2e/**', 'test/store/pg-store.test.ts', 'test/store/pg-copy.test.ts'],
          // The files share a worker's loaded modules: loading src/ again for every file was half of the run's time.
          // Each test still starts its own sandbox and temp folder.
          isolate: false,
        },
      },
      {
        extends: true,
        // Tests that spawn the bin or run a whole lifecycle.
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          exclude: ['test/e2e/*-postgres.test.ts', ...BROWSER],
        },
      },
      {
        extends: true,
        // The pages in Debian's chromium and the workbooks other spreadsheet programs write (npm run test:browser):
        // a third of the suite's time, on a command of their own so that npm test stays under two minutes.
        test: { name: 'browser', include: BROWSER },
      },
      {
        extends: true,
        // The store's tests and the exactly-once tests again, on PostgreSQL (npm run test:postgres): each test gets a
        // database of its own on the server PAYER_ONBOARD_TEST_DATABASE_URL names, and fails without one.
        test: {
          name: 'postgres',
          include: [
            'test/store/pg-store.test.ts',
            'test/store/pg-copy.test.ts',
            'test/store/waiting-tables.test.ts',
            'test/store/payer-directory.test.ts',
            'test/store/controls-tables.test.ts',
            'test/store/migration-directory.test.ts',
            'test/pipeline/run-directory.test.ts',
            'test/commands/directory-commands.test.ts',
            'test/web/payerPaging.test.ts',
            'test/journal/journal-store.test.ts',
            'test/journal/journal-import.test.ts',
            'test/pipeline/exactly-once-ids.test.ts',
            'test/pipeline/two-writers.test.ts',
            'test/pipeline/rerun-journal.test.ts',
            'test/pipeline/rerun-failed-elsewhere.test.ts',
            'test/pipeline/run-carried-steps.test.ts',
            'test/pipeline/run-signature-record.test.ts',
            'test/inbox/inbox-waiting.test.ts',
            'test/inbox/inbox-page-advice.test.ts',
            'test/serve/eventLog.test.ts',
            'test/journal/journal-payers-named.test.ts',
            'test/e2e/serve-two-postgres.test.ts',
            'test/web/uploadsShared.test.ts',
            'test/store/migration-kill.test.ts',
          ],
          env: { PAYER_ONBOARD_TEST_BACKEND: 'postgres' },
          isolate: false,
        },
      },
    ],
  },
});
