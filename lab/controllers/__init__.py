"""Controllers by scenario ``type``: name -> (params dataclass, controller class)."""

from .belt_drive import BeltDrive, BeltDriveParams
from .climbing import TrackedClimb, TrackedClimbParams
from .eel_fl import EelFeedbackLinearization, EelFLParams
from .head_tracking_pfl import HeadTrackingPFL, HeadTrackingPFLParams
from .passive_creeping import PassiveCreeping, PassiveCreepingParams
from .serpenoid import Serpenoid, SerpenoidParams

CONTROLLERS = {
    "passive_creeping": (PassiveCreepingParams, PassiveCreeping),
    "serpenoid": (SerpenoidParams, Serpenoid),
    "eel_feedback_linearization": (EelFLParams, EelFeedbackLinearization),
    "tracked_climb": (TrackedClimbParams, TrackedClimb),
    "belt_drive": (BeltDriveParams, BeltDrive),
    "head_tracking_pfl": (HeadTrackingPFLParams, HeadTrackingPFL),
}


def make_controller(kind: str, params):
    return CONTROLLERS[kind][1](params)


__all__ = ["CONTROLLERS", "make_controller", "BeltDrive", "BeltDriveParams", "EelFeedbackLinearization", "EelFLParams", "PassiveCreeping", "PassiveCreepingParams", "Serpenoid", "SerpenoidParams",
           "TrackedClimb", "TrackedClimbParams", "HeadTrackingPFL", "HeadTrackingPFLParams"]
