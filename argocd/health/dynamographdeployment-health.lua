-- Argo CD health check for nvidia.com DynamoGraphDeployment, for clusters where the Dynamo
-- operator reconciles the DGDs (dynamo-render's keep-sources, or DGDs applied next to the
-- plugin's output).
--
-- The operator (internal/controller/dgd_workload_program.go) writes status.state (initializing,
-- pending, successful, failed), status.observedGeneration on each completed reconcile, and a
-- Ready condition whose message says what is not ready. A failed reconcile sets state failed and
-- a Ready condition False for the generation it failed on, without moving observedGeneration.
--
-- Degraded: state failed for the current generation. Progressing: no status yet, the latest spec
-- not observed (checked only where the operator writes status.observedGeneration, as Argo CD's
-- built-in checks skip the test when the field is absent), or state initializing or pending. Healthy: state successful. The message is the
-- Ready condition's. Written for Argo CD's Lua 5.1 (gopher-lua).
local hs = {}
local function ready_condition(status)
  if status.conditions == nil then
    return nil
  end
  for _, c in ipairs(status.conditions) do
    if c.type == "Ready" then
      return c
    end
  end
  return nil
end
if obj.status == nil then
  hs.status = "Progressing"
  hs.message = "Waiting for the Dynamo operator to report status"
  return hs
end
local ready = ready_condition(obj.status)
local message = nil
if ready ~= nil then
  message = ready.message
  if message == nil or message == "" then
    message = ready.reason
  end
end
local generation = obj.metadata.generation
local state = obj.status.state
if state == "failed" then
  -- A failure reported for an older generation is stale: the operator has not looked at the new spec.
  local current = ready == nil or ready.observedGeneration == nil or generation == nil or ready.observedGeneration >= generation
  if current then
    hs.status = "Degraded"
    hs.message = message or "DynamoGraphDeployment failed"
    return hs
  end
end
local observed = obj.status.observedGeneration
if generation ~= nil and observed ~= nil and observed < generation then
  hs.status = "Progressing"
  hs.message = "Waiting for the Dynamo operator to observe the latest spec"
  return hs
end
if state == "successful" then
  hs.status = "Healthy"
  hs.message = message or "All resources are ready"
  return hs
end
hs.status = "Progressing"
if state == nil or state == "" then
  state = "initializing"
end
hs.message = message or ("State: " .. state)
return hs
