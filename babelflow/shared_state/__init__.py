"""Shared state for runs on many workers (issue 29): one interface, chosen by configuration.

- `config`: where the shared state lives (environment: BABELFLOW_SHARED_OBJECTS, BABELFLOW_SHARED_DATABASE,
  BABELFLOW_S3_ENDPOINT_URL); unset means local files only, the embedded default.
- `objects`: results, IR, variants and reports in object storage (a local folder or S3 through s3fs).
- `documents`: translation memory, canonical maps and the review log as versioned documents with
  compare-and-swap writes and run locks (PostgreSQL, or a local folder with file locks).
- `sync`: a run's slice of the state folder pulled before it starts and pushed after every stage.
"""
