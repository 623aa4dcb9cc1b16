// The live pages' script, loaded from this server only: an element with `data-live` follows what serve does (a
// server-sent event at each change; the element's `data-fragment` is fetched, or the form `data-fragment-form` names is
// posted, and what comes back swapped in), and the copy buttons put a link on the clipboard. A stream that ends for
// good (`data-live-ends`: a sent file once run) is not reopened. Times are written in the reader's own time zone, named.
const shown = new Intl.DateTimeFormat(undefined, {
  year: 'numeric',
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  timeZoneName: 'short',
});
function localTimes(root) {
  for (const time of root.querySelectorAll('time[datetime]')) {
    const at = new Date(time.getAttribute('datetime'));
    if (Number.isNaN(at.getTime())) continue;
    time.title = time.getAttribute('datetime');
    time.textContent = shown.format(at);
  }
}
localTimes(document);
for (const live of document.querySelectorAll('[data-live]')) {
  const source = new EventSource(live.dataset.live);
  const form = live.dataset.fragmentForm ? document.getElementById(live.dataset.fragmentForm) : null;
  source.addEventListener('change', async () => {
    const answer = form
      ? await fetch(form.action, {
          method: 'POST',
          body: new URLSearchParams(new FormData(form)),
          credentials: 'same-origin',
        })
      : await fetch(live.dataset.fragment, { credentials: 'same-origin' });
    if (!answer.ok) return;
    live.innerHTML = await answer.text();
    localTimes(live);
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
