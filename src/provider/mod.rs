//! The clusterproxy provider: maps the domain core onto the framework.
