// The Payers page's script, loaded from this server only: the table follows what serve does (a server-sent event
// each time a run, a batch of webhooks or a check ends), and the copy buttons put a link on the clipboard.
const live = document.getElementById('payers-live');
if (live) {
  const source = new EventSource(live.dataset.live);
  source.addEventListener('change', async () => {
    const answer = await fetch(live.dataset.fragment, { credentials: 'same-origin' });
    if (answer.ok) live.innerHTML = await answer.text();
  });
}
document.addEventListener('click', async (event) => {
  const button = event.target.closest?.('button[data-copy]');
  if (!button) return;
  try {
    await navigator.clipboard.writeText(button.dataset.copy);
    button.textContent = 'Copied';
  } catch {
    // Over plain http to another machine the browser keeps the clipboard closed: the link is shown instead.
    window.prompt('Copy this link', button.dataset.copy);
  }
});
