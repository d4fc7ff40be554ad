"""The settings: their one owner and writer (`config_owner`, whose `follow` is how a
widget keeps to the fields it shows), the Settings dialog, the privacy switches, the Gemini
key and finding a local server."""
