{
  "rules": "rules/cups.mancala",
  "variants": [],
  "settings": [],
  "seed": 0,
  "moves": []
}
