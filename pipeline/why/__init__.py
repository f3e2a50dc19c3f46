"""The loss X-ray: where each judged-relevant fact was lost under a setting (`lab.why`)."""
