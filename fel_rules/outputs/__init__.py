"""What reports become: output formats (JSON, text, SARIF) and the PDF rendering of documents."""
