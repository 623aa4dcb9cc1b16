// The audit page's script, loaded from this server only: the filters' days are taken in the reader's own time zone,
// as the page shows its times (without the script they are UTC days, and the page says so).
const zone = document.querySelector('input[data-time-zone]');
if (zone && zone.value === '') {
  zone.value = Intl.DateTimeFormat().resolvedOptions().timeZone;
  for (const name of document.querySelectorAll('[data-zone-name]')) name.textContent = zone.value;
}
