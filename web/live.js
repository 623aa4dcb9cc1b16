// The live pages' script, loaded from this server only: an element with `data-live` follows what serve does (a
// server-sent event at each change; the element's `data-fragment` is fetched and swapped in), and the copy buttons
// put a link on the clipboard. A stream that ends for good (`data-live-ends`: a sent file once run) is not reopened.
for (const live of document.querySelectorAll('[data-live]')) {
  const source = new EventSource(live.dataset.live);
  source.addEventListener('change', async () => {
    const answer = await fetch(live.dataset.fragment, { credentials: 'same-origin' });
    if (answer.ok) live.innerHTML = await answer.text();
  });
  if ('liveEnds' in live.dataset) source.addEventListener('error', () => source.close());
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
