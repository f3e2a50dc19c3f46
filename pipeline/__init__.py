"""Retrieval Lab's engine: graph backends, embedders, rerankers, retrieval, evaluation. No Streamlit."""
