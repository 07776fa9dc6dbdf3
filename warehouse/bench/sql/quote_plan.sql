-- Copy k of quote i is added in order (k, i); take the prefix closest to the wanted rows.
-- ?: the full copies of every quote, the market rows wanted.
create or replace temp table bench_quote_plan as
with candidates as (
    select r.*, k.copy, sum(r.rows) over (order by k.copy, r.quote_no rows unbounded preceding) as cum
    from bench_quote_rows r cross join range(0, ? + 1) k(copy)
)
select * from candidates
where cum - rows / 2.0 < ?
