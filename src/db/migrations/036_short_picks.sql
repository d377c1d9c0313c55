-- Short picks find the stock: the units a short pick leaves missing are planned again at another
-- slot as a new part of the same wave line (src/floor/short-picks.ts). `covers_part` is the part
-- whose short pick a part covers (null: a part planned with the wave). A line's ordered quantity is
-- the sum of its parts that cover none.
ALTER TABLE wave_lines ADD COLUMN covers_part integer CHECK (covers_part >= 1);
