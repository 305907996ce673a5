"""The page's panels: each draws one part of the page from the hand in progress and calls its commands.

These are the only modules besides app.py that import Streamlit. They hold no decisions of their
own: what a tap means is a `page.hand_session.HandSession` command, what the hand scores is its
`evaluate()`, the evening is `page.scorebook`; the panels turn those into widgets, in one language.
"""
