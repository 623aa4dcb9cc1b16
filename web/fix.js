// The Fix step's script: a row whose cell changed (or that was left out) is posted as JSON with the session's CSRF
// token and checked again at once; every shown row's marks are redrawn from the answer. Without it the grid's form
// posts every row, and the page comes back checked.
const section = document.getElementById('fix');
const form = section?.querySelector('form');
const status = document.getElementById('fix-status');
let queue = Promise.resolve();

function rowOf(tr) {
  const line = Number(tr.dataset.line);
  const cells = {};
  for (const input of tr.querySelectorAll('input[name^="c:"]')) cells[input.name.split(':')[2]] = input.value;
  const out = tr.querySelector('input[name^="out:"]')?.checked === true;
  return { line, cells, out };
}

function mark(td, id, messages) {
  const input = td.querySelector('input');
  td.querySelector('.mark')?.remove();
  td.classList.toggle('bad', messages.length > 0);
  if (messages.length === 0) {
    input.removeAttribute('aria-invalid');
    input.removeAttribute('aria-describedby');
    return;
  }
  const span = document.createElement('span');
  span.className = 'mark';
  span.id = `${id}-m`;
  span.textContent = messages.join('; ');
  td.append(span);
  input.setAttribute('aria-invalid', 'true');
  input.setAttribute('aria-describedby', span.id);
}

function redraw(answer) {
  for (const tr of section.querySelectorAll('tr[data-line]')) {
    const line = Number(tr.dataset.line);
    const marks = answer.marks[line] ?? [];
    tr.classList.toggle('out', answer.leftOut.includes(line));
    for (const input of tr.querySelectorAll('input[name^="c:"]')) {
      const column = Number(input.name.split(':')[2]);
      const here = marks.filter((m) => m.column === column).map((m) => m.message);
      mark(input.closest('td'), input.id, here);
    }
    const whole = marks.filter((m) => m.column === undefined).map((m) => m.message);
    const note = section.querySelector(`tr[data-note="${line}"]`);
    note.hidden = whole.length === 0;
    note.querySelector('.row-marks').textContent = whole.join('; ');
  }
  // The counts, wherever the page says them, as the server words them: the facts (and the check's warnings), the
  // heading, the send form (which comes or goes with the rows that can be sent). A file the check could not use this time: the page says why.
  if (answer.page === undefined) return window.location.reload();
  const { facts, send, title } = answer.page;
  const found = document.getElementById('check-facts');
  if (found) found.outerHTML = facts;
  const part = document.getElementById('send-part');
  if (part) part.innerHTML = send;
  document.getElementById('fix-title').textContent = title;
}

async function check(tr) {
  const row = rowOf(tr);
  status.textContent = `Checking line ${row.line}…`;
  const response = await fetch(form.action, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-csrf-token': form.elements._csrf.value },
    body: JSON.stringify(row),
  });
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  const answer = await response.json();
  redraw(answer);
  if (answer.page) status.textContent = `Line ${row.line} checked again: ${answer.page.said}.`;
}

section?.addEventListener('change', (event) => {
  const tr = event.target.closest('tr[data-line]');
  if (tr === null) return;
  queue = queue
    .then(() => check(tr))
    .catch(() => {
      status.textContent = 'The row could not be checked here: save the changes with the button below.';
    });
});
