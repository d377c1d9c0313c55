-- A write tried as one autocommitted statement (src/http/write.ts) calls this where it finds that it
-- needs more than that statement: the error aborts the statement, and with it all it wrote, and
-- the write runs again in a transaction. Returns its argument otherwise, so it wraps the condition.
CREATE FUNCTION write_needs_transaction_when(needed boolean) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  IF needed THEN
    RAISE EXCEPTION 'this write needs a transaction' USING ERRCODE = 'PPTX1';
  END IF;
  RETURN needed;
END $$;
