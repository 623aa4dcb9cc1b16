// Preloaded (`node --import`) into a process the benchmark measures: at exit it writes that process's own
// peak RSS and CPU time to $BENCH_PEAK_FILE. Exact where polling /proc could miss the peak, and it counts
// nothing of any other process (the sandbox runs in the benchmark's own process, not here).
import { writeFileSync } from 'node:fs';

const file = process.env.BENCH_PEAK_FILE;
if (file) {
  process.on('exit', () => {
    const cpu = process.cpuUsage();
    const figures = {
      maxRssKb: process.resourceUsage().maxRSS,
      cpuUserMs: cpu.user / 1000,
      cpuSystemMs: cpu.system / 1000,
    };
    writeFileSync(file, JSON.stringify(figures));
  });
}
