-- Middle cross aisles of a layout, [{"afterPosition": 20, "width": 3}, ...], front to back; the
-- floor code checks their values (src/floor/plan/layout.ts), this check only keeps nonsense out.
ALTER TABLE floor_layouts
  ADD COLUMN cross_aisles jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(cross_aisles) = 'array');
