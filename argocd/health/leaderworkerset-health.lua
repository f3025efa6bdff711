-- Argo CD health check for leaderworkerset.x-k8s.io/v1 LeaderWorkerSet (what dynamo-render
-- renders for a multinode component on the component pathway). Argo CD has no built-in check
-- for this kind and would call a LeaderWorkerSet Healthy as soon as it exists, so PruneLast
-- would prune the replaced one before the new groups are up.
--
-- The LWS controller (pkg/controllers/leaderworkerset_controller.go, v0.7.0 to v0.10.0) keeps
-- status.readyReplicas and updatedReplicas (groups, surge groups included) and the conditions
-- Available, Progressing and UpdateInProgress; status.observedGeneration only from v0.9.0 on.
-- Available turns True when every group is ready and every group at or above the rollout's
-- partition (spec.rolloutStrategy.rollingUpdateConfiguration.partition, default 0) is updated:
-- groups below the partition keep the old revision on purpose. It reports no failure condition
-- itself; a True condition of type Failed is taken as Degraded should a controller report one.
-- Pods Pending for GPUs keep the LeaderWorkerSet Progressing (the controller has no progress
-- deadline).
--
-- Progressing: no status yet, the latest spec is not observed (checked only where the controller
-- writes observedGeneration, as Argo CD's built-in checks do), fewer groups are updated than
-- spec.replicas (default 1) less the partition, fewer are ready than spec.replicas, or Available
-- is not True. Degraded: a failure condition. Healthy: otherwise. Written for Argo CD's Lua 5.1
-- (gopher-lua).
local hs = {}
local function condition(status, kind)
  if status.conditions == nil then
    return nil
  end
  for _, c in ipairs(status.conditions) do
    if c.type == kind then
      return c
    end
  end
  return nil
end
if obj.status == nil then
  hs.status = "Progressing"
  hs.message = "Waiting for the LeaderWorkerSet controller to report status"
  return hs
end
local failed = condition(obj.status, "Failed")
if failed ~= nil and failed.status == "True" then
  hs.status = "Degraded"
  hs.message = failed.message or failed.reason or "LeaderWorkerSet failed"
  return hs
end
local generation = obj.metadata.generation
local observed = obj.status.observedGeneration
if generation ~= nil and observed ~= nil and observed < generation then
  hs.status = "Progressing"
  hs.message = "Waiting for the LeaderWorkerSet controller to observe the latest spec"
  return hs
end
local desired = 1
if obj.spec ~= nil and obj.spec.replicas ~= nil then
  desired = obj.spec.replicas
end
local partition = 0
local rollout = obj.spec and obj.spec.rolloutStrategy
if rollout ~= nil and rollout.rollingUpdateConfiguration ~= nil and rollout.rollingUpdateConfiguration.partition ~= nil then
  partition = rollout.rollingUpdateConfiguration.partition
end
if partition < 0 then
  partition = 0
end
if partition > desired then
  partition = desired
end
local wanted = desired - partition
local updated = obj.status.updatedReplicas or 0
local ready = obj.status.readyReplicas or 0
if updated < wanted then
  hs.status = "Progressing"
  hs.message = "Updated groups: " .. updated .. " of " .. wanted
  if partition > 0 then
    hs.message = hs.message .. " (partition " .. partition .. ")"
  end
  return hs
end
if ready < desired then
  hs.status = "Progressing"
  hs.message = "Ready groups: " .. ready .. " of " .. desired
  return hs
end
local available = condition(obj.status, "Available")
if available == nil or available.status ~= "True" then
  local progressing = condition(obj.status, "UpdateInProgress")
  if progressing == nil or progressing.status ~= "True" then
    progressing = condition(obj.status, "Progressing")
  end
  hs.status = "Progressing"
  if progressing ~= nil and progressing.status == "True" and progressing.message ~= nil then
    hs.message = progressing.message
  else
    hs.message = "Waiting for the LeaderWorkerSet to become Available"
  end
  return hs
end
hs.status = "Healthy"
hs.message = available.message or ("Ready groups: " .. ready .. " of " .. desired)
return hs
