#!/bin/sh
# FIREFOX_BIN of the quick test project (vitest.config.ts): a test there launched Firefox, which
# the quick group must never need. Fails the launch with a message that says what to do.
echo "webbrain tests: this test launched Firefox, but its file is in the quick group (QUICK_TESTS in vitest.config.ts), which runs without a browser. Remove the file from QUICK_TESTS." >&2
exit 1
