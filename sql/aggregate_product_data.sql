-- aggregate_product_data.sql: product data per store and vendor readiness,
-- read from the product fields the check saved (Product JSON-LD of a
-- product page, else products.json). Vendor readiness asks whether the six
-- fields a search vendor's agentic checkout reads are present: name, a
-- price above 0, currency, availability, GTIN or SKU, image. ready: all
-- six; partial: a product with some missing; not_ready: no product data.
-- It is read from saved public evidence and is not vendor approval. The
-- rows keep the host order of signals.
WITH fields AS (
    SELECT
        host,
        product_url,
        product_data_source,
        product_data_complete,
        checked_at,
        product_name, product_price, product_currency, product_availability,
        product_gtin, product_sku, product_image,
        list_filter([
            CASE WHEN product_name IS NOT NULL THEN 'name' END,
            CASE WHEN product_price IS NOT NULL THEN 'price' END,
            CASE WHEN product_currency IS NOT NULL THEN 'currency' END,
            CASE WHEN product_availability IS NOT NULL THEN 'availability' END,
            CASE WHEN product_gtin IS NOT NULL OR product_sku IS NOT NULL THEN 'gtin_or_sku' END,
            CASE WHEN product_image IS NOT NULL THEN 'image' END
        ], x -> x IS NOT NULL) AS present,
        list_filter([
            CASE WHEN product_name IS NULL THEN 'name' END,
            CASE WHEN product_price IS NULL THEN 'price' END,
            CASE WHEN product_currency IS NULL THEN 'currency' END,
            CASE WHEN product_availability IS NULL THEN 'availability' END,
            CASE WHEN product_gtin IS NULL AND product_sku IS NULL THEN 'gtin_or_sku' END,
            CASE WHEN product_image IS NULL THEN 'image' END
        ], x -> x IS NOT NULL) AS missing
    FROM signals
),
rated AS (
    SELECT
        *,
        CASE
            WHEN product_data_complete IS NULL THEN NULL
            WHEN product_data_source IS NULL THEN 'not_ready'
            WHEN len(missing) = 0 THEN 'ready'
            ELSE 'partial'
        END AS status
    FROM fields
)
SELECT
    host,
    product_url,
    product_data_source AS source,
    CASE WHEN product_data_complete IS NOT NULL THEN json_object(
        'name', product_name,
        'price', product_price,
        'currency', product_currency,
        'availability', product_availability,
        'gtin', product_gtin,
        'sku', product_sku,
        'image', product_image,
        'complete', product_data_complete)::VARCHAR
    END AS product_data,
    status AS vendor_readiness_status,
    CASE WHEN status IS NOT NULL THEN json_object(
        'status', status,
        'present', present,
        'missing', missing,
        'basis', 'Saved public product data: Product JSON-LD of a product page, else the public products.json.',
        'note', 'Read from saved public evidence; not vendor approval. Merchant feed eligibility cannot be checked from outside.')::VARCHAR
    END AS vendor_readiness,
    checked_at
FROM rated;
