LOCAL = "http://127.0.0.1"  # the test clients' address: a host the app answers (see create_app's allowed_hosts)
