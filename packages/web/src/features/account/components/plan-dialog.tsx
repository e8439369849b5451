import { useState } from 'react';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import Radio from '@mui/material/Radio';
import RadioGroup from '@mui/material/RadioGroup';
import Typography from '@mui/material/Typography';
import { Plans, type TPlanOffer, type TSubscriptionType } from '@persona/contract';
import { initialChoice, isRequestDisabled, planFeatures, planName, planPrice, requestLabel } from '../lib/plan-rules';

export interface PlanDialogProps {
  open: boolean;
  current: TSubscriptionType;
  /** The plan asked for and not yet decided (null when none). */
  requested: TSubscriptionType | null;
  isSubmitting: boolean;
  /** What each plan unlocks, from account_info (the limits the server enforces). */
  offers?: TPlanOffer[];
  isWithdrawing?: boolean;
  /** Withdraws the pending request. */
  onWithdraw?: () => void;
  onRequest: (plan: TSubscriptionType) => void;
  onClose: () => void;
}

/** 'Change Subscription': the four plans with their prices, and the request button (spec section 4). */
export function PlanDialog(props: PlanDialogProps) {
  // Remounted on every opening so the choice starts from the account's current state.
  return (
    <Dialog
      open={props.open}
      onClose={props.isSubmitting ? undefined : props.onClose}
      maxWidth="sm"
      fullWidth
      aria-labelledby="plan-dialog-title"
    >
      {props.open ? <PlanDialogBody {...props} /> : null}
    </Dialog>
  );
}

function PlanDialogBody({ current, requested, isSubmitting, offers, isWithdrawing, onWithdraw, onRequest, onClose }: PlanDialogProps) {
  const [chosen, setChosen] = useState<TSubscriptionType>(initialChoice(current, requested));
  const isLocked = requested !== null;
  const label = requestLabel(current, chosen);
  return (
    <>
      <DialogTitle id="plan-dialog-title" sx={{ fontWeight: 700, pb: 0.5 }}>
        Change Subscription
      </DialogTitle>
      <DialogContent>
        <Typography color="text.secondary" sx={{ mb: 2 }}>
          Your plan is <strong>{planName(current)}</strong>. Choose another plan and send the request; an administrator confirms it and you get an e-mail.
        </Typography>
        {isLocked ? (
          <Alert
            severity="info"
            sx={{ mb: 2 }}
            action={
              onWithdraw ? (
                <Button color="inherit" size="small" onClick={onWithdraw} loading={isWithdrawing} disabled={isSubmitting}>
                  Withdraw request
                </Button>
              ) : undefined
            }
          >
            Your request for {planName(requested)} is waiting for an administrator. Withdraw it to choose again.
          </Alert>
        ) : null}
        <RadioGroup
          aria-label="Subscription plan"
          value={String(chosen)}
          onChange={(_event, value) => setChosen(Number(value) as TSubscriptionType)}
          sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', sm: '1fr 1fr' }, gap: 1.5 }}
        >
          {Plans.map((plan) => {
            const isCurrent = plan.code === current;
            const isRequested = plan.code === requested;
            const isChosen = plan.code === chosen;
            const id = `plan-${plan.code}`;
            return (
              <Box
                key={plan.code}
                component="label"
                htmlFor={id}
                data-testid={`plan-option-${plan.name}`}
                sx={{
                  display: 'flex',
                  alignItems: 'flex-start',
                  gap: 1,
                  p: 1.5,
                  pr: 2,
                  borderRadius: 2.5,
                  border: 2,
                  borderColor: isChosen ? 'primary.main' : 'divider',
                  bgcolor: isChosen ? 'rgba(79, 70, 229, 0.05)' : 'background.paper',
                  cursor: isLocked ? 'default' : 'pointer',
                  opacity: isLocked && !isRequested ? 0.6 : 1,
                  transition: 'border-color 120ms, background-color 120ms',
                }}
              >
                <Radio id={id} value={String(plan.code)} disabled={isLocked || isSubmitting} sx={{ mt: -0.5 }} slotProps={{ input: { 'aria-label': plan.name } }} />
                <Box sx={{ minWidth: 0, flex: 1 }}>
                  <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, flexWrap: 'wrap' }}>
                    <Typography sx={{ fontWeight: 700, letterSpacing: '0.02em' }}>{plan.name}</Typography>
                    {isCurrent ? <Chip size="small" label="Current" color="primary" variant="outlined" /> : null}
                    {isRequested ? <Chip size="small" label="REQUESTED" color="warning" /> : null}
                  </Box>
                  <Typography variant="body2" color="text.secondary">
                    {planPrice(plan)}
                  </Typography>
                  <Box component="ul" aria-label={`${plan.name} includes`} sx={{ m: 0, mt: 0.5, pl: 2.25, typography: 'body2' }}>
                    {planFeatures(offers?.find((o) => o.code === plan.code)).map((feature) => (
                      <li key={feature}>{feature}</li>
                    ))}
                  </Box>
                </Box>
              </Box>
            );
          })}
        </RadioGroup>
      </DialogContent>
      <DialogActions sx={{ px: 3, pb: 2.5 }}>
        <Button color="inherit" onClick={onClose} disabled={isSubmitting}>
          Cancel
        </Button>
        <Button
          variant="contained"
          onClick={() => onRequest(chosen)}
          disabled={isRequestDisabled({ current, requested, chosen, isSubmitting })}
          loading={isSubmitting}
        >
          {label}
        </Button>
      </DialogActions>
    </>
  );
}
