-- An authenticated GET of the URL given to wrk.
wrk.headers["Authorization"] = "Token " .. (os.getenv("QD_KEY") or "")
