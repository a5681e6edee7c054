"""The report page: ``document`` (a self-contained HTML page and its embedded figures) and ``report`` (what the
HTML report of an evaluation shows, ``report_html``)."""
