"""DynamoGraphDeployment expansion: DGD admission, pathway, DCD generation, the worker hash."""
