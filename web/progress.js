// A sent file's page, loaded from this server only: its progress follows the run (a server-sent event at each change).
const live = document.getElementById('progress-live');
if (live) {
  const source = new EventSource(live.dataset.live);
  source.addEventListener('change', async () => {
    const answer = await fetch(live.dataset.fragment, { credentials: 'same-origin' });
    if (answer.ok) live.innerHTML = await answer.text();
  });
  // The stream ends once the file has been run: no reconnecting after that.
  source.addEventListener('error', () => source.close());
}
