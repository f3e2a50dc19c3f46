"""The engine side of a judged comparison of two settings on one query (Compare, Scores).

- `rbo`: rank-biased overlap of two rankings (Webber et al. 2010, extrapolated).
- `judged`: the query's judgments (labelled set or analysts' relevance verdicts), each side's nDCG@k,
  recall@k and MRR@k with the project's metric code.
- `verdict`: the one-line verdict in words (following nDCG@k as shown) and the names of the two sides.
- `overlap`: the overlap of two top-k lists as count, Jaccard and RBO.
- `confidence`: the low-confidence rule (the deal probably holds no good answer).
"""
