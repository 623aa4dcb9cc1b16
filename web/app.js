// The web page's one script, loaded from this server only: dropping a file on the upload form picks it, as choosing
// it would. Everything works without it.
for (const zone of document.querySelectorAll('[data-drop]')) {
  const input = zone.querySelector('input[type="file"]');
  zone.addEventListener('dragover', (event) => {
    event.preventDefault();
    zone.classList.add('over');
  });
  zone.addEventListener('dragleave', () => zone.classList.remove('over'));
  zone.addEventListener('drop', (event) => {
    event.preventDefault();
    zone.classList.remove('over');
    if (input && event.dataTransfer?.files.length) input.files = event.dataTransfer.files;
  });
}
