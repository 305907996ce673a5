"""The Streamlit page's logic, kept out of app.py so it can be tested without a browser.

app.py holds widgets only; each module here has one job (situation, quick entry, photo state,
scorebook, sharing, serving on the local network, ...).
"""
