"""JSON Schemas of the --json outputs, one ``<command>.schema.json`` each (shipped as package data): check,
diagnose, doctor, extract, graph, locate, report, repro, scan, show, source, sweep, trace (trace-assert).  The MCP tools
(inspector/cli/_mcp_server.py: ``TOOLS``) publish theirs as output schemas; tests validate real answers against each."""
