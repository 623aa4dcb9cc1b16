// The payer's own page's script, loaded from this server only. It takes the agreement frame's message that the payer
// agreed ({agreements: "complete"}, exactly that, and only from the origins the page names) and posts it to serve with
// the page's token; it swaps in a step's section when serve says the payer's state changed; and it says so plainly when
// the agreement cannot be shown in its frame (the service refuses to be framed, or the frame never loads).
const steps = document.getElementById('steps');
const note = document.getElementById('live-note');
/** A frame with no `load` by then is taken as refused. */
const FRAME_WAIT_MS = 20_000;

if (steps) {
  const origins = new Set(steps.dataset.origins.split(' ').filter(Boolean));
  window.addEventListener('message', (event) => {
    if (origins.has(event.origin) && isComplete(event.data)) void sign(0);
  });
  const source = new EventSource(steps.dataset.live);
  source.addEventListener('state', (event) => apply(JSON.parse(event.data)));
  // The link was revoked or ran out: the page says so once reloaded.
  source.addEventListener('gone', () => {
    source.close();
    window.location.reload();
  });
  // Refused for good (not a dropped connection, which the browser retries by itself): the page says why once reloaded.
  source.addEventListener('error', () => {
    if (source.readyState === EventSource.CLOSED) window.location.reload();
  });
  watchFrames();
}

// The keyboard in the agreement's frame: its page draws its own focus, and this page rings the frame around it (no
// selector matches a frame whose page holds the focus).
window.addEventListener('blur', () => {
  if (document.activeElement?.matches('iframe')) document.activeElement.classList.add('focused');
});
window.addEventListener('focus', () => {
  for (const frame of document.querySelectorAll('iframe.focused')) frame.classList.remove('focused');
});

/** The reference app's message, and nothing else: a plain object with that one key and value. */
function isComplete(data) {
  return (
    data !== null &&
    typeof data === 'object' &&
    Object.getPrototypeOf(data) === Object.prototype &&
    Object.keys(data).length === 1 &&
    data.agreements === 'complete'
  );
}

let signing = false;

/** Posts the signature; tried again a few times, waiting longer each time, when serve could not take it. */
async function sign(attempt) {
  if (signing && attempt === 0) return;
  signing = true;
  let status = 0;
  try {
    const answer = await fetch(steps.dataset.sign, {
      method: 'POST',
      credentials: 'same-origin',
      // Same-origin only, so the browser sends this page's Origin (the page's own policy sends none at all).
      referrerPolicy: 'same-origin',
      headers: { 'content-type': 'application/json', 'x-csrf-token': steps.dataset.csrf },
      body: '{}',
    });
    status = answer.status;
    if (answer.ok) {
      signing = false;
      apply((await answer.json()).sections);
      return;
    }
  } catch {
    // serve out of reach for a moment: tried again below
  }
  if (status === 404) return window.location.reload();
  if (status !== 403 && status !== 429 && attempt < 5) {
    setTimeout(() => void sign(attempt + 1), 1000 * 2 ** attempt);
    return;
  }
  signing = false;
  const problem = document.createElement('p');
  problem.className = 'state problem';
  problem.setAttribute('role', 'alert');
  problem.textContent = 'Your signature could not be saved. Reload this page and agree once more.';
  document.getElementById('step-agreement')?.append(problem);
}

/** Each section whose key changed is replaced where it stands; the others (a frame being read) are left alone. */
function apply(sections) {
  const ids = new Set(sections.map((section) => section.id));
  for (const element of [...steps.children]) if (!ids.has(element.id)) element.remove();
  let previous;
  const changed = [];
  for (const section of sections) {
    let element = document.getElementById(section.id);
    if (!element || element.dataset.key !== section.key) {
      const fresh = elementOf(section.html);
      if (element) element.replaceWith(fresh);
      else if (previous) previous.after(fresh);
      else steps.prepend(fresh);
      element = fresh;
      changed.push(fresh);
    }
    previous = element;
  }
  if (ids.has('done')) document.querySelector('.lead')?.remove();
  if (changed.length === 0) return;
  note.textContent = changed.map((element) => element.querySelector('.state, .ok')?.textContent ?? '').join(' ');
  watchFrames();
}

function elementOf(html) {
  const template = document.createElement('template');
  template.innerHTML = html.trim();
  return template.content.firstElementChild;
}

/**
 * A browser refusing a frame still fires its `load` (on an error page the parent cannot read), so serve is asked what
 * the service's headers say; a frame that never loads is taken as refused too.
 */
function watchFrames() {
  for (const frame of document.querySelectorAll('iframe[data-agreement-frame]:not([data-watched])')) {
    frame.dataset.watched = '';
    const section = frame.closest('section');
    let loaded = false;
    frame.addEventListener('load', () => {
      loaded = true;
    });
    // The window's own load waits for its frames: one that loaded before this script ran has loaded by then.
    window.addEventListener('load', () => {
      loaded = true;
    });
    const refuse = () => {
      if (!frame.isConnected) return;
      for (const element of section.querySelectorAll('[data-frame-hide]')) element.hidden = true;
      section.querySelector('[data-frame-refused]').hidden = false;
      frame.remove();
      note.textContent = section.querySelector('[data-frame-refused]').textContent;
    };
    setTimeout(() => {
      if (!loaded) refuse();
    }, FRAME_WAIT_MS);
    fetch(steps.dataset.frameCheck, { credentials: 'same-origin' })
      .then((answer) => (answer.ok ? answer.json() : undefined))
      .then((verdict) => {
        if (verdict?.frame === 'refused') refuse();
      })
      .catch(() => undefined);
  }
}
