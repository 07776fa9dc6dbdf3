-- The cost of owning a system per useful hour: capex over the amortisation, energy with cooling
-- overhead and the colocation charge, divided by the share of hours it does useful work. The
-- one formula for it: the catalog's platforms (price_option) and the owned quotes of a quotes
-- file (sources/bundled/ownership.py evaluates this file) both use it; the warehouse applies it as its
-- schema's 021_ownership.sql (warehouse/store/db.py), so neither side reads the other's folder.
create or replace macro owned_usd_per_hour(capex_usd, years, power_kw, pue, usd_per_kwh, colo_usd_per_kw_month, utilization) as
    (capex_usd / (years * 8760.0) + power_kw * pue * usd_per_kwh
     + colo_usd_per_kw_month * power_kw * 12.0 / 8760.0) / utilization;
