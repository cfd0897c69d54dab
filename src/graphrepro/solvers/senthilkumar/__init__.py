"""Senthilkumar & Rachakonda (Rutgers CS516): workfront sweep, near-far pile (after Davidson,
Baxter, Garland, Owens, IPDPS 2014) and the hybrid of the two that the report left unfinished."""
