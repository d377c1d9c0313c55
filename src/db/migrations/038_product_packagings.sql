-- A product's lot tracking and its packagings (src/catalog/packagings.ts). A packaging is a
-- number of units under a name (a case of 12), scanned by its own barcode: that barcode names one
-- packaging of one product, so a scan of it finds what and how many. Product barcodes may still
-- repeat among products (a scan of one then names them all), but never equal a packaging's.
ALTER TABLE products
  ADD COLUMN lot_tracked boolean NOT NULL DEFAULT false,
  ADD COLUMN packagings jsonb NOT NULL DEFAULT '[]';

-- The packagings' barcodes, one row each, kept by the trigger below: a scan finds a packaging by
-- this index, and the index refuses a barcode another packaging holds (case aside, as scans compare).
CREATE TABLE packaging_barcodes (
  tenant_id uuid NOT NULL,
  product_id uuid NOT NULL,
  barcode text NOT NULL,
  FOREIGN KEY (tenant_id, product_id) REFERENCES products (tenant_id, id) ON DELETE CASCADE
);
CREATE UNIQUE INDEX packaging_barcodes_unique ON packaging_barcodes (tenant_id, lower(barcode));
CREATE INDEX packaging_barcodes_product ON packaging_barcodes (tenant_id, product_id);
-- Scans and the check below find products by barcode, case aside.
CREATE INDEX products_barcode ON products (tenant_id, lower(barcode)) WHERE barcode IS NOT NULL;

-- Keeps packaging_barcodes and refuses a barcode another product holds as a packaging's, and a
-- packaging barcode any product holds as its own (its own product's too). Each code written is locked first (advisory class 16, src/db/locks.ts), in order, so
-- that two writes claiming one code queue, whichever kinds of barcode they are; the checks then run
-- after the lock, each statement seeing what the other write committed.
CREATE FUNCTION product_barcodes_claimed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  codes text[];
  code text;
  taken text;
  holder text;
BEGIN
  codes := ARRAY(
    SELECT DISTINCT c FROM unnest(lower(NEW.barcode) || ARRAY(SELECT lower(e->>'barcode') FROM jsonb_array_elements(NEW.packagings) AS e)) AS c
    WHERE c IS NOT NULL ORDER BY c);
  FOREACH code IN ARRAY codes LOOP
    PERFORM pg_advisory_xact_lock(16, hashtext(NEW.tenant_id::text || ':' || code));
  END LOOP;
  -- Another product's packaging with one of the codes, or another product whose barcode one of the packagings has.
  SELECT b.barcode, p.external_id INTO taken, holder
  FROM packaging_barcodes AS b JOIN products AS p ON p.tenant_id = b.tenant_id AND p.id = b.product_id
  WHERE b.tenant_id = NEW.tenant_id AND lower(b.barcode) = ANY (codes) AND b.product_id <> NEW.id
  LIMIT 1;
  IF taken IS NULL THEN
    SELECT e->>'barcode', p.external_id INTO taken, holder
    FROM jsonb_array_elements(NEW.packagings) AS e
    JOIN products AS p ON p.tenant_id = NEW.tenant_id AND lower(p.barcode) = lower(e->>'barcode') AND p.barcode IS NOT NULL
    LIMIT 1;
  END IF;
  IF taken IS NOT NULL THEN
    RAISE EXCEPTION 'barcode % already belongs to the product with externalId %', taken, holder
      USING ERRCODE = 'unique_violation', CONSTRAINT = 'product_barcodes_distinct', DETAIL = taken, HINT = holder;
  END IF;
  IF TG_OP = 'UPDATE' THEN
    DELETE FROM packaging_barcodes WHERE tenant_id = NEW.tenant_id AND product_id = NEW.id;
  END IF;
  INSERT INTO packaging_barcodes (tenant_id, product_id, barcode)
  SELECT NEW.tenant_id, NEW.id, e->>'barcode' FROM jsonb_array_elements(NEW.packagings) AS e WHERE e->>'barcode' IS NOT NULL;
  RETURN NULL;
END $$;

-- Only writes that set a barcode or packagings call it: most catalog writes change neither.
CREATE TRIGGER product_barcodes_inserted AFTER INSERT ON products FOR EACH ROW
  WHEN (NEW.barcode IS NOT NULL OR NEW.packagings <> '[]') EXECUTE FUNCTION product_barcodes_claimed();
CREATE TRIGGER product_barcodes_updated AFTER UPDATE OF barcode, packagings ON products FOR EACH ROW
  WHEN (NEW.barcode IS DISTINCT FROM OLD.barcode OR NEW.packagings IS DISTINCT FROM OLD.packagings) EXECUTE FUNCTION product_barcodes_claimed();
